import { zooPart } from './zoo.ts';

zooPart(0, 3);
